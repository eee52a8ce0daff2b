/*
 * Finds the plain single-quoted string literals of a SQL text, with the keyword just before each,
 * so that workspace paths can be swapped for the sandbox's own copies. A small lexer rather than a
 * regex: quotes inside comments, identifiers ("…"), E'…' escape strings and $tag$…$tag$ strings
 * must not be taken for literals. Those other string forms are left alone: DuckDB sees them as
 * written, and its own file access rules (only the scratch folder) then apply to them.
 */

export interface SqlLiteral {
  /** Offset of the opening quote. */
  start: number;
  /** Offset just past the closing quote. */
  end: number;
  /** The literal's value ('' unescaped). */
  value: string;
  /** The keyword or punctuation before the literal, upper-cased (`FROM`, `TO`, `(`, `,`), or "". */
  before: string;
}

const WORD = /[A-Za-z_\u0080-\uffff]/;
const WORD_REST = /[A-Za-z0-9_$\u0080-\uffff]/;

/** The plain '…' literals of `sql`, in order. An unterminated quote ends the scan (DuckDB rejects it). */
export function findLiterals(sql: string): SqlLiteral[] {
  const out: SqlLiteral[] = [];
  let before = "";
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === "'") {
      const end = quoted(sql, i, "'");
      if (end < 0) return out;
      out.push({ start: i, end, value: sql.slice(i + 1, end - 1).replaceAll("''", "'"), before });
      before = "'";
      i = end;
    } else if (c === '"') {
      const end = quoted(sql, i, '"');
      if (end < 0) return out;
      before = '"';
      i = end;
    } else if (c === "$") {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close < 0) return out;
        i = close + tag[0].length;
        before = "$";
      } else {
        i++;
      }
    } else if (WORD.test(c)) {
      let j = i + 1;
      while (j < n && WORD_REST.test(sql[j]!)) j++;
      const word = sql.slice(i, j);
      // E'…' (backslash escapes) and other prefixed strings: skipped whole, never rewritten.
      if ((word === "E" || word === "e") && sql[j] === "'") {
        const end = escaped(sql, j);
        if (end < 0) return out;
        before = "E'";
        i = end;
      } else {
        before = word.toUpperCase();
        i = j;
      }
    } else if (/\s/.test(c)) {
      i++;
    } else {
      before = c;
      i++;
    }
  }
  return out;
}

/** End offset (past the closing quote) of a quoted run starting at `start`; doubled quotes escape. */
function quoted(sql: string, start: number, q: string): number {
  let i = start + 1;
  for (;;) {
    const close = sql.indexOf(q, i);
    if (close < 0) return -1;
    if (sql[close + 1] === q) i = close + 2;
    else return close + 1;
  }
}

/** Like `quoted`, for E'…' strings where a backslash also escapes the next character. */
function escaped(sql: string, start: number): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === "\\") i++;
    else if (sql[i] === "'") {
      if (sql[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return -1;
}

/** `value` as a SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
