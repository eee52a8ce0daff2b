import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { strToU8, zipSync } from "fflate";

/*
 * A temp workspace per test file: a copy of the repo's sample project_root plus generated tables
 * the planner has never seen, in other folders, shapes and naming styles (snake_case CSV, TSV with
 * units in headers, JSON array, JSON object wrapping camelCase rows, a two-sheet workbook with a
 * space in its name). Everything is deterministic (a seeded generator), so assertions can be exact.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const SAMPLE_ROOT = path.join(REPO, "project_root");

export interface Workspace {
  base: string;
  project: string;
  assets: string;
  auditLog: string;
  cleanup(): Promise<void>;
}

/** Mulberry32: a tiny seeded PRNG so the generated data is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const day = (start: string, offset: number) =>
  new Date(Date.parse(start) + offset * 86_400_000).toISOString().slice(0, 10);

export const REGIONS = ["North", "South", "East", "West"] as const;
export const CATEGORIES = ["Electronics", "Furniture", "Office Supplies", "Toys"] as const;

export interface Order {
  order_id: string;
  order_date: string;
  region: string;
  product_category: string;
  units: number;
  unit_price_usd: number;
}

export function orders(): Order[] {
  const r = rng(7);
  const base: Record<string, number> = { Electronics: 240, Furniture: 410, "Office Supplies": 12, Toys: 35 };
  return Array.from({ length: 90 }, (_, i) => {
    const category = CATEGORIES[Math.floor(r() * CATEGORIES.length)]!;
    return {
      order_id: `SO-${String(1001 + i)}`,
      order_date: day("2025-01-01", i),
      region: REGIONS[Math.floor(r() * REGIONS.length)]!,
      product_category: category,
      units: 1 + Math.floor(r() * 48),
      unit_price_usd: Math.round(base[category]! * (0.8 + r() * 0.4) * 100) / 100,
    };
  });
}

export const CITIES = ["Oslo", "Madrid", "Cairo", "Tokyo"] as const;

export function temps(): { date: string; values: number[] }[] {
  const r = rng(11);
  const mean = [-4, 9, 15, 6];
  return Array.from({ length: 60 }, (_, i) => ({
    date: day("2024-01-01", i),
    values: mean.map((m) => Math.round((m + (r() - 0.5) * 8 + i * 0.05) * 10) / 10),
  }));
}

export const DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Support", "Finance"] as const;

export interface Employee {
  name: string;
  department: string;
  salary: number;
  hire_year: number;
  remote: boolean;
}

export function employees(): Employee[] {
  const r = rng(23);
  const first = [
    "Ada",
    "Ben",
    "Chloe",
    "Dev",
    "Eva",
    "Finn",
    "Gita",
    "Hugo",
    "Iris",
    "Jon",
    "Kai",
    "Lena",
    "Mo",
    "Nia",
  ];
  const pay: Record<string, number> = {
    Engineering: 98000,
    Sales: 72000,
    Marketing: 68000,
    Support: 52000,
    Finance: 81000,
  };
  return Array.from({ length: 42 }, (_, i) => {
    const department = DEPARTMENTS[i % DEPARTMENTS.length]!;
    return {
      name: `${first[i % first.length]} ${String.fromCharCode(65 + ((i * 7) % 26))}.`,
      department,
      salary: Math.round((pay[department]! * (0.85 + r() * 0.3)) / 100) * 100,
      hire_year: 2012 + Math.floor(r() * 13),
      remote: r() < 0.45,
    };
  });
}

export const PRODUCTS = [
  { sku: "A-100", productName: "Desk Lamp", category: "Lighting", priceEUR: 39.9, inStock: true, rating: 4.4 },
  { sku: "A-101", productName: "Floor Lamp", category: "Lighting", priceEUR: 129, inStock: false, rating: 4.1 },
  { sku: "B-200", productName: "Office Chair", category: "Seating", priceEUR: 249, inStock: true, rating: 4.7 },
  { sku: "B-201", productName: "Stool", category: "Seating", priceEUR: 59, inStock: true, rating: 3.8 },
  { sku: "B-202", productName: "Bean Bag", category: "Seating", priceEUR: 89, inStock: true, rating: 4.2 },
  { sku: "C-300", productName: "Standing Desk", category: "Desks", priceEUR: 499, inStock: true, rating: 4.8 },
  { sku: "C-301", productName: "Corner Desk", category: "Desks", priceEUR: 329, inStock: false, rating: 4.0 },
  { sku: "D-400", productName: "Bookshelf", category: "Storage", priceEUR: 149, inStock: true, rating: 4.3 },
  { sku: "D-401", productName: "Filing Cabinet", category: "Storage", priceEUR: 179, inStock: true, rating: 3.9 },
  { sku: "D-402", productName: "Drawer Unit", category: "Storage", priceEUR: 99, inStock: false, rating: 4.5 },
];

export const EXPENSES: [string, string, number][] = [];
{
  const r = rng(5);
  const months = ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05", "2025-06"];
  for (const m of months) {
    for (const [cat, base] of [
      ["Rent", 12000],
      ["Salaries", 54000],
      ["Travel", 4200],
      ["Software", 6100],
    ] as const) {
      EXPENSES.push([m, cat, Math.round(base * (0.9 + r() * 0.2))]);
    }
  }
}
export const HEADCOUNT: [string, number, number][] = [
  ["Platform", 14, 2],
  ["Mobile", 9, 3],
  ["Data", 7, 1],
  ["Design", 5, 0],
  ["QA", 6, 2],
];

export interface Car {
  Make: string;
  Model: string;
  Year: number;
  Horsepower: number;
  MPG: number;
  price: number;
  Origin: string;
}

/** Cars with a "Make" column (a word the planner also uses as a verb) and prices written "$23,456". */
export function cars(): Car[] {
  const makes = ["Toyota", "Ford", "BMW", "Honda", "Tesla", "Fiat"];
  const origin: Record<string, string> = {
    Toyota: "Japan",
    Ford: "USA",
    BMW: "Germany",
    Honda: "Japan",
    Tesla: "USA",
    Fiat: "Italy",
  };
  return Array.from({ length: 30 }, (_, i) => {
    const make = makes[i % makes.length]!;
    return {
      Make: make,
      Model: `${make.slice(0, 2).toUpperCase()}-${100 + i}`,
      Year: 2015 + (i % 9),
      Horsepower: 100 + ((i * 37) % 300),
      MPG: 18 + ((i * 7) % 25),
      price: 20000 + i * 1234,
      Origin: origin[make]!,
    };
  });
}

/** Daily web metrics with US-style dates ("01/05/2024"). */
export function traffic(): { day: string; views: number; visitors: number; bounce: number }[] {
  return Array.from({ length: 20 }, (_, i) => ({
    day: `01/${String(i + 1).padStart(2, "0")}/2024`,
    views: 1000 + i * 37,
    visitors: 400 + i * 11,
    bounce: 40 + (i % 7),
  }));
}

/** Transactions as JSON lines with ISO timestamps. */
export function transactions(): { ts: string; account: string; amount: number; category: string }[] {
  return Array.from({ length: 48 }, (_, i) => ({
    ts: `2024-0${1 + (i % 6)}-${String(10 + (i % 9)).padStart(2, "0")}T10:00:00Z`,
    account: ["A", "B", "C"][i % 3]!,
    amount: ((i * 53) % 200) + 5,
    category: ["groceries", "rent", "fun", "travel"][i % 4]!,
  }));
}

/** Grades with a numeric id column next to the name, and yes/no text for a boolean. */
export function grades(): { id: number; name: string; cls: string; subject: string; score: number }[] {
  return Array.from({ length: 40 }, (_, i) => ({
    id: 100 + i,
    name: `S${i}`,
    cls: ["7A", "7B", "8A"][i % 3]!,
    subject: ["Math", "Physics", "History", "Art"][i % 4]!,
    score: 40 + ((i * 13) % 60),
  }));
}

/** API requests wrapped in an object, camelCase keys, numeric status codes. */
export function requests(): { timestamp: string; endpoint: string; latencyMs: number; status: number }[] {
  return Array.from({ length: 30 }, (_, i) => ({
    timestamp: `2024-05-${String(1 + (i % 28)).padStart(2, "0")}T0${i % 10}:00:00Z`,
    endpoint: ["/api/a", "/api/b", "/login"][i % 3]!,
    latencyMs: 20 + ((i * 17) % 300),
    status: [200, 200, 500, 404][i % 4]!,
  }));
}

/** A league table per season: sheets named "2023" and "2024". */
export const LEAGUE: Record<string, [string, number, number, number, number][]> = {
  "2023": [
    ["Lions", 10, 7, 3, 21],
    ["Tigers", 10, 5, 5, 15],
    ["Bears", 10, 2, 8, 6],
  ],
  "2024": [
    ["Lions", 10, 4, 6, 12],
    ["Tigers", 10, 8, 2, 24],
    ["Bears", 10, 6, 4, 18],
  ],
};

function cellXml(ref: string, v: string | number | boolean): string {
  if (typeof v === "number") return `<c r="${ref}"><v>${v}</v></c>`;
  if (typeof v === "boolean") return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  const esc = v.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  return `<c r="${ref}" t="inlineStr"><is><t>${esc}</t></is></c>`;
}

/** A minimal valid .xlsx (inline strings, no styles), one sheet per entry. */
export function workbook(sheets: Record<string, (string | number | boolean)[][]>): Uint8Array {
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const names = Object.keys(sheets);
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    "xl/workbook.xml": strToU8(
      `<?xml version="1.0"?><workbook ${ns} xmlns:r="${rel}"><sheets>` +
        names.map((n, i) => `<sheet name="${n}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("") +
        "</sheets></workbook>",
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        names
          .map(
            (_, i) => `<Relationship Id="rId${i + 1}" Type="${rel}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
          )
          .join("") +
        "</Relationships>",
    ),
  };
  names.forEach((name, i) => {
    const rows = sheets[name]!.map(
      (cells, r) =>
        `<row r="${r + 1}">` +
        cells.map((v, c) => cellXml(`${String.fromCharCode(65 + c)}${r + 1}`, v)).join("") +
        "</row>",
    );
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(
      `<?xml version="1.0"?><worksheet ${ns}><sheetData>${rows.join("")}</sheetData></worksheet>`,
    );
  });
  return zipSync(files);
}

/** Copies the sample workspace and writes the generated tables into it. */
export async function makeWorkspace(): Promise<Workspace> {
  const base = await mkdtemp(path.join(os.tmpdir(), "textide-planner-"));
  const project = path.join(base, "project_root");
  const assets = path.join(base, "generated_assets");
  await cp(SAMPLE_ROOT, project, { recursive: true });
  await mkdir(assets);
  const put = async (rel: string, content: string | Uint8Array) => {
    const abs = path.join(project, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  };
  const o = orders();
  await put(
    "sales/2025/q1_orders.csv",
    [
      "order_id,order_date,region,product_category,units,unit_price_usd",
      ...o.map((r) => [r.order_id, r.order_date, r.region, r.product_category, r.units, r.unit_price_usd].join(",")),
    ].join("\n") + "\n",
  );
  await put(
    "weather/daily-temps.tsv",
    [
      ["Date", ...CITIES.map((c) => `${c} (°C)`)].join("\t"),
      ...temps().map((t) => [t.date, ...t.values].join("\t")),
    ].join("\n") + "\n",
  );
  await put("hr/employees.json", JSON.stringify(employees(), null, 2));
  await put("shop/catalog.json", JSON.stringify({ generated: "2025-06-01", products: PRODUCTS }, null, 2));
  await put(
    "finance/Budget FY2025.xlsx",
    workbook({
      Expenses: [["Month", "Category", "Amount (EUR)"], ...EXPENSES],
      Headcount: [["Team", "Headcount", "Open roles"], ...HEADCOUNT],
    }),
  );
  await put(
    "inventory/Cars Dataset.csv",
    [
      "Make,Model,Year,Horsepower,MPG,Price ($),Origin",
      ...cars().map(
        (c) =>
          `${c.Make},${c.Model},${c.Year},${c.Horsepower},${c.MPG},"$${c.price.toLocaleString("en-US")}",${c.Origin}`,
      ),
    ].join("\r\n"),
  );
  await put(
    "metrics/web_traffic.csv",
    [
      "Day,Page Views,Unique Visitors,Bounce Rate (%)",
      ...traffic().map((t) => `${t.day},${t.views},${t.visitors},${t.bounce}`),
    ].join("\n"),
  );
  await put(
    "finance/transactions.jsonl",
    transactions()
      .map((t) => JSON.stringify(t))
      .join("\n") + "\n",
  );
  await put(
    "school/grades-2024.csv",
    [
      "Student ID,Student Name,Class,Subject,Score,Passed",
      ...grades().map((g) => `${g.id},${g.name},${g.cls},${g.subject},${g.score},${g.score >= 50 ? "yes" : "no"}`),
    ].join("\n"),
  );
  await put("ops/requests.json", JSON.stringify({ service: "api", requests: requests() }));
  const header = ["Team", "Played", "Won", "Lost", "Points"];
  await put(
    "sports/League Table.xlsx",
    workbook(Object.fromEntries(Object.entries(LEAGUE).map(([season, rows]) => [season, [header, ...rows]]))),
  );
  return {
    base,
    project,
    assets,
    auditLog: path.join(base, "audit", "exec.jsonl"),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
