/**
 * Wire names of the bundled MCP server's tools. Valid as OpenAI/Anthropic function names
 * (`^[a-zA-Z0-9_-]{1,64}$`), so no client has to rename them.
 */
export const TOOL = {
  listDirectory: "fs_list_directory",
  readFile: "fs_read_file",
  writeFile: "fs_write_file",
  editFile: "fs_edit_file",
  searchFiles: "fs_search_files",
  getFileInfo: "fs_get_file_info",
  createDirectory: "fs_create_directory",
  moveFile: "fs_move_file",
  openFile: "system_open_file",
  runJs: "exec_run_js",
  runPython: "exec_run_python",
  sqlQuery: "sql_query",
} as const;

export type ToolName = (typeof TOOL)[keyof typeof TOOL];

/** Names of the two roots as they appear in workspace paths and tool results. */
export const ROOT = { project: "project_root", assets: "generated_assets" } as const;
export type RootName = (typeof ROOT)[keyof typeof ROOT];

/** `_meta` key a caller sets on a tool call so that its logs and the server's share one id. */
export const CORRELATION_META_KEY = "io.textide/correlation-id";
