/**
 * The language server's stderr in the output channel at the level each line was logged with. The server logs
 * `2026-12-06 03:00:12,185 INFO lsp_server.server.app: message` (`cli/serve.py`); vscode-languageclient's
 * default writes every stderr line with `error()`, so an INFO line showed as `[error]`. A line of a record that
 * spans several (a traceback's frames) keeps that record's level; a line with no record before it is `info`,
 * except Python's own `Traceback (most recent call last):`, which is an error. No VS Code here.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RECORD = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) /;
const LEVELS: Record<string, LogLevel> = { DEBUG: 'debug', INFO: 'info', WARNING: 'warn', ERROR: 'error', CRITICAL: 'error' };

export class ServerLogReader {
  private level: LogLevel = 'info';

  /** One line of the server's stderr: its level, and the text without the timestamp (the channel adds its own). */
  line(text: string): { level: LogLevel; text: string } {
    const record = RECORD.exec(text);
    if (record) {
      this.level = LEVELS[record[1] ?? 'INFO'] ?? 'info';
      return { level: this.level, text: text.slice(record[0].length) };
    }
    if (text.startsWith('Traceback (most recent call last):')) {
      this.level = 'error';
    }
    return { level: this.level, text };
  }
}
