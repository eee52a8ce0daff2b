import type { ReactNode } from "react";
import { Workspace } from "@/components/workspace/workspace";

export default function Page(): ReactNode {
  return <Workspace />;
}
