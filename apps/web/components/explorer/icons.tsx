import type { ReactNode } from "react";

/** Small stroke icons for the explorer header (no icon font: nothing loads from outside). */
const paths = {
  "new-file": "M4 1.5h5l3 3v10H4zM9 1.5v3h3M8 8v5M5.5 10.5h5",
  "new-folder": "M1.5 3.5h5l1.5 1.5h6.5v8.5h-13zM8 7.5v5M5.5 10h5",
  upload: "M8 11V2.5M4.5 6 8 2.5 11.5 6M2.5 11v3h11v-3",
  refresh: "M13 8a5 5 0 1 1-1.5-3.6M13 2v3h-3",
  "collapse-all": "M2.5 2.5h11v11h-11zM5 8h6",
} satisfies Record<string, string>;

export type IconName = keyof typeof paths;

export function Icon({ name }: { name: IconName }): ReactNode {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.3" aria-hidden>
      <path d={paths[name]} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
