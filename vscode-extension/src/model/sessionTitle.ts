/**
 * What a conversation is called, the rule the server's `pi/sessions` `title` follows (`session_title` in
 * `lsp_server/session/folders.py`): Pi's name for the session, else its first user message on one line (control
 * characters and runs of white space as one space, trimmed) of at most 80 characters, else the fallback. The chat's
 * header uses it before the server has listed the session (a chat whose Pi has not written its file yet).
 */

export const TITLE_MAX_CHARS = 80;

export function sessionTitle(name: string | null | undefined, firstMessage: string | null | undefined, fallback: string): string {
  for (const text of [name, firstMessage]) {
    if (text) {
      // eslint-disable-next-line no-control-regex
      const line = text.replace(/[\x00-\x1f\x7f]+/g, ' ').replace(/\s+/g, ' ').trim();
      if (line) {
        return line.length <= TITLE_MAX_CHARS ? line : `${line.slice(0, TITLE_MAX_CHARS - 1).trimEnd()}…`;
      }
    }
  }
  return fallback;
}
