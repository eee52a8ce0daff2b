import { z } from "zod";

/** `POST /api/open-file` body (what the MCP server's `system_open_file` sends); also the `file/open` event. */
export const openFileRequest = z.object({
  path: z.string().min(1),
  line: z.number().int().positive().optional(),
});
export type OpenFileRequest = z.infer<typeof openFileRequest>;

/** `POST /api/open-file`: the file's workspace path and how many browsers were told. */
export interface OpenFileResponse {
  path: string;
  clients: number;
}
