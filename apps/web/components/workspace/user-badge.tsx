"use client";

import { useEffect, useState, type ReactNode } from "react";
import { fetchMe, signOut, type Me } from "@/lib/auth";

/** Who is signed in, with a sign-out button; nothing on a single-user server. */
export function UserBadge(): ReactNode {
  const [me, setMe] = useState<Me>();
  useEffect(() => {
    fetchMe().then(setMe, () => undefined);
  }, []);
  if (!me?.team) return null;
  const leave = (): void => {
    void signOut().finally(() => window.location.assign("/sign-in"));
  };
  return (
    <span className="user-badge">
      <span title="Signed in">{me.user}</span>
      {me.signOut && (
        <button type="button" onClick={leave}>
          Sign out
        </button>
      )}
    </span>
  );
}
