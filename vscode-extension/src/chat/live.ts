/**
 * What the Chat view says about the Pi that runs, beside the conversation, and the actions it offers.
 * Every sentence about what Pi does comes from the server (`pi/chat/drift`, `ChatInfo.projectUntrusted`),
 * which words rules a real-Pi test exercises (docs/chat.md, "What Pi takes up, and when"); this module
 * only picks what to show and words pi-context's own settings. No VS Code here: `node --test` covers it.
 */
import type { ChatInfo, ChatQueueResult } from '../protocol.generated';

/** An action the view offers for the running Pi: `reload` / `restart` (pi/chat/reload), `trust` (pi/chat/trust). */
export type LiveAction = 'reload' | 'restart' | 'trust';

export interface LiveNotice {
  /** `drift`: the files changed after Pi read them; `trust`: Pi leaves the project's `.pi/` resources out. */
  kind: 'drift' | 'trust';
  message: string;
  action: LiveAction;
  label: string;
}

/**
 * The notices for the chat: where the files differ from what Pi read (with Reload or Restart), and a project
 * Pi does not trust (with Trust Project). A restart for trust already says what Trust Project would.
 */
export function liveNotices(chat: Pick<ChatInfo, 'drift' | 'projectUntrusted'> | null): LiveNotice[] {
  if (!chat) {
    return [];
  }
  const notices: LiveNotice[] = [];
  const drift = chat.drift;
  if (drift) {
    notices.push({ kind: 'drift', message: drift.message, action: drift.action, label: drift.actionLabel });
  }
  if (chat.projectUntrusted && !drift?.trust) {
    notices.push({ kind: 'trust', message: chat.projectUntrusted, action: 'trust', label: 'Trust Project' });
  }
  return notices;
}

/** The queued texts Pi no longer sends (Stop, Take back), as one text for the input: after what is typed there. */
export function queuedBack(queued: ChatQueueResult | null | undefined, typed: string): string | null {
  const texts = [...(queued?.steering ?? []), ...(queued?.followUp ?? [])].filter((t) => t.length > 0);
  if (texts.length === 0) {
    return null;
  }
  return [typed.trimEnd(), ...texts].filter((t) => t.length > 0).join('\n\n');
}

export const PI_COMMAND_SETTING = 'piContext.pi.command';

/** The command that opens the settings editor where a machine setting lives: the Remote tab in a remote window. */
export function settingsCommand(remote: boolean): string {
  return remote ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
}

/**
 * What to do when no Pi could be started, after the server's sentence: the setting that names the command,
 * where it lives (a machine setting: user settings, or the Remote tab in a remote or browser window; never a
 * workspace's), and that the next New Chat uses it without a restart.
 */
export function piMissingHelp(commandSet: boolean, remote: boolean): string {
  const where = remote
    ? "a machine setting: in this remote window it is under the Settings editor's Remote tab, not User"
    : "a machine setting: in your user settings, never a workspace's";
  const what = commandSet ? `Fix ${PI_COMMAND_SETTING}` : `Or set ${PI_COMMAND_SETTING} to the command that starts Pi`;
  return `${what} (${where}); the next New Chat uses it, no restart needed.`;
}
