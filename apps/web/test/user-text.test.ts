import { describe, expect, it } from "vitest";
import { forUser } from "../lib/user-text.js";

describe("forUser", () => {
  it("drops advice to the model from file API errors", () => {
    expect(forUser("notes/x.md does not exist. Use fs_search_files or fs_list_directory to find the right path.")).toBe(
      "notes/x.md does not exist.",
    );
    expect(
      forUser(
        'Access denied: "../x" is outside the allowed roots. Allowed: project_root (relative paths) and generated_assets/. Use fs_list_directory on `.` to see what exists.',
      ),
    ).toBe(
      'Access denied: "../x" is outside the allowed roots. Allowed: project_root (relative paths) and generated_assets/.',
    );
  });

  it("says a denied call was denied, not what the model should do", () => {
    expect(
      forUser("Could not read the table: The user rejected this tool call. Do not retry it; ask or do something else."),
    ).toBe("Could not read the table: You denied this step.");
  });

  it("leaves ordinary text alone", () => {
    const text = "Created generated_assets/planets.png — pie chart of Diameter (km).";
    expect(forUser(text)).toBe(text);
  });
});
