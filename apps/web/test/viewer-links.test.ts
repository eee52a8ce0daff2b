import { describe, expect, it } from "vitest";
import { isVegaLiteSpec } from "../lib/vega-spec.js";
import { resolveWorkspaceLink } from "../lib/workspace-path.js";

describe("isVegaLiteSpec", () => {
  const spec = JSON.stringify({ $schema: "https://vega.github.io/schema/vega-lite/v6.json", mark: "bar" });

  it("recognises *.vl.json and *.vega-lite.json by name", () => {
    expect(isVegaLiteSpec("charts/a.vl.json", "{}")).toBe(true);
    expect(isVegaLiteSpec("charts/a.VEGA-LITE.json", "")).toBe(true);
  });

  it("recognises any .json whose $schema names vega-lite", () => {
    expect(isVegaLiteSpec("generated_assets/chart.json", spec)).toBe(true);
  });

  it("leaves plain JSON, Vega (not Vega-Lite) specs and broken JSON alone", () => {
    expect(isVegaLiteSpec("data/missions.json", '[{"name":"Apollo"}]')).toBe(false);
    expect(isVegaLiteSpec("v.json", '{"$schema":"https://vega.github.io/schema/vega/v6.json"}')).toBe(false);
    expect(isVegaLiteSpec("x.json", '{"$schema":"https://vega.github.io/schema/vega-lite/v6.json",')).toBe(false);
    expect(isVegaLiteSpec("x.json", '{"note":"\\"$schema\\": \\"vega-lite\\""}')).toBe(false);
  });

  it("needs a .json file for content detection", () => {
    expect(isVegaLiteSpec("notes/spec.md", spec)).toBe(false);
  });
});

describe("resolveWorkspaceLink", () => {
  it("resolves relative links against the file's folder", () => {
    expect(resolveWorkspaceLink("planets.csv", "data/chart.vl.json")).toBe("data/planets.csv");
    expect(resolveWorkspaceLink("./moons/io.md", "data/x.md")).toBe("data/moons/io.md");
    expect(resolveWorkspaceLink("../images/solar-system.png", "notes/ideas.md")).toBe("images/solar-system.png");
  });

  it("treats a leading slash as the workspace root and drops query and fragment", () => {
    expect(resolveWorkspaceLink("/data/planets.xlsx?x=1#top", "notes/a.md")).toBe("data/planets.xlsx");
  });

  it("decodes percent-escapes", () => {
    expect(resolveWorkspaceLink("my%20notes.md", "notes/a.md")).toBe("notes/my notes.md");
  });

  it("refuses URLs, fragments and paths that climb out of the workspace", () => {
    for (const href of [
      "https://cdn.example.com/data.csv",
      "http://x/y.json",
      "//evil.example/a.png",
      "javascript:alert(1)",
      "data:text/csv,a",
      "#section",
      "../../etc/passwd",
      "",
    ])
      expect(resolveWorkspaceLink(href, "notes/a.md"), href).toBeUndefined();
  });
});
