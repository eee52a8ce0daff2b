import type { McpServer } from "@modelcontextprotocol/server";
import type { ToolContext } from "./context.js";
import { registerRunJs } from "./exec/run-js.js";
import { registerRunPython } from "./exec/run-python.js";
import { registerCreateDirectory } from "./fs/create-directory.js";
import { registerEditFile } from "./fs/edit-file.js";
import { registerGetFileInfo } from "./fs/get-file-info.js";
import { registerListDirectory } from "./fs/list-directory.js";
import { registerMoveFile } from "./fs/move-file.js";
import { registerReadFile } from "./fs/read-file.js";
import { registerSearchFiles } from "./fs/search-files.js";
import { registerWriteFile } from "./fs/write-file.js";
import { registerSqlQuery } from "./sql/query.js";
import { registerOpenFile } from "./system/open-file.js";

/** The only list of the server's tools; the optional ones come with their part of the context. */
export function registerTools(server: McpServer, ctx: ToolContext): void {
  registerListDirectory(server, ctx);
  registerReadFile(server, ctx);
  registerWriteFile(server, ctx);
  registerEditFile(server, ctx);
  registerSearchFiles(server, ctx);
  registerGetFileInfo(server, ctx);
  registerCreateDirectory(server, ctx);
  registerMoveFile(server, ctx);
  registerOpenFile(server, ctx);
  if (ctx.sql) registerSqlQuery(server, { ...ctx, sql: ctx.sql });
  if (ctx.exec) registerRunJs(server, { ...ctx, exec: ctx.exec });
  if (ctx.python && !ctx.python.off) registerRunPython(server, { ...ctx, python: ctx.python });
}
