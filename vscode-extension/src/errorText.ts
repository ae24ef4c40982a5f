/** An error as the one sentence a user reads (its message), whatever was thrown. No VS Code here. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
