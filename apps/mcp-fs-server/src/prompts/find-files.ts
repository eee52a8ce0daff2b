import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const FIND_FILES = "find-files";

export function registerFindFiles(server: McpServer): void {
  server.registerPrompt(
    FIND_FILES,
    {
      title: "Find files about a topic",
      description: "Search the workspace (names and contents) for the files about a topic.",
      argsSchema: z.object({
        topic: z.string().min(1).describe("What the files should be about, e.g. 'moons of Jupiter'"),
      }),
    },
    ({ topic }) => {
      const text = [
        `Find the files in this workspace about: ${topic.trim()}.`,
        "Use fs_search_files by name with a few likely words and globs (e.g. *.csv), then by content with the topic's key terms; search both roots.",
        "List each relevant file with a one-line reason, most relevant first. If nothing matches, say so and say what you searched for.",
      ].join("\n");
      return {
        description: `Find files about ${topic.trim()}`,
        messages: [{ role: "user", content: { type: "text", text } }],
      };
    },
  );
}
