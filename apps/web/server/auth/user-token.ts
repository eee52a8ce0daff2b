/** A user's own MCP bearer token, known by its SHA-256 (hex) only: what the MCP HTTP child is given. */
export interface UserToken {
  user: string;
  sha256: string;
}
