import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import "./viewers.css";

export const metadata: Metadata = {
  title: "textide",
  description: "Explore and visualise your project's files by chat.",
};

export const viewport: Viewport = { colorScheme: "dark light" };

/**
 * Runs before the first paint: the saved theme, else the OS's preference. React would only apply it after
 * hydration, so a light-themed OS saw the dark default first.
 */
const THEME_SCRIPT = `(function(){try{var t=localStorage.getItem("textide-theme");if(t!=="light"&&t!=="dark")t=matchMedia("(prefers-color-scheme: light)").matches?"light":"dark";document.documentElement.dataset.theme=t}catch(e){}})()`;

export default function RootLayout({ children }: { children: ReactNode }): ReactNode {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>{children}</body>
    </html>
  );
}
