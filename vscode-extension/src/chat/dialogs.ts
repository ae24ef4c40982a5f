/**
 * Pi's extension dialogs (`extension_ui_request`) as VS Code's own: `select` a quick pick, `confirm` a modal,
 * `input`/`editor` an input box, each answered (`pi/chat/uiResponse`: the value, or `{cancelled: true}` when
 * dismissed); `notify` a notification; `setStatus` and `set_editor_text` change the view. No VS Code here: the UI
 * is the `ChatUi` port.
 */
import type { ChatUiResponseParams } from '../protocol.generated';
import type { ChatUi } from './ports';

type Json = Record<string, unknown>;

/** What a dialog answers with: one of the response fields, or cancelled. */
export type DialogAnswer = Omit<ChatUiResponseParams, 'chatId' | 'id'>;

/** What a request that needs no answer does to the view. */
export type DialogEffect =
  | { kind: 'status'; key: string; text: string | null }
  | { kind: 'setInput'; text: string }
  | { kind: 'unknown'; method: string };

/**
 * Ask the user what `request` asks and give the answer to `answer` (dialogs), or say what the view should do
 * (`setStatus`, `set_editor_text`). Answers null when nothing is left to do.
 */
export async function showDialog(
  request: Json,
  ui: ChatUi,
  answer: (response: DialogAnswer) => Promise<unknown>,
): Promise<DialogEffect | null> {
  const title = typeof request.title === 'string' ? request.title : 'Pi';
  switch (request.method) {
    case 'select': {
      const options = Array.isArray(request.options) ? request.options.filter((o): o is string => typeof o === 'string') : [];
      const pick = await ui.pick(
        options.map((label) => ({ label })),
        { title, ignoreFocusOut: true },
      );
      await answer(pick === undefined ? { cancelled: true } : { value: pick.label });
      return null;
    }
    case 'confirm': {
      const detail = typeof request.message === 'string' ? request.message : undefined;
      const choice = await ui.ask('info', title, detail, 'Yes', 'No');
      await answer(choice === undefined ? { cancelled: true } : { confirmed: choice === 'Yes' });
      return null;
    }
    case 'input':
    case 'editor': {
      const value = await ui.input({
        title,
        placeHolder: typeof request.placeholder === 'string' ? request.placeholder : undefined,
        value: typeof request.prefill === 'string' ? request.prefill : undefined,
      });
      await answer(value === undefined ? { cancelled: true } : { value });
      return null;
    }
    case 'notify': {
      const text = typeof request.message === 'string' ? request.message : title;
      const level = request.notifyType === 'error' ? 'error' : request.notifyType === 'warning' ? 'warning' : 'info';
      ui.notify(level, `Pi: ${text}`);
      return null;
    }
    case 'setStatus': {
      const key = typeof request.statusKey === 'string' ? request.statusKey : '';
      const text = typeof request.statusText === 'string' && request.statusText.length > 0 ? request.statusText : null;
      return { kind: 'status', key, text };
    }
    case 'set_editor_text':
      return typeof request.text === 'string' ? { kind: 'setInput', text: request.text } : null;
    default:
      return { kind: 'unknown', method: String(request.method) };
  }
}
