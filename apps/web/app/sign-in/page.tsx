"use client";

import { useState, type FormEvent, type ReactNode } from "react";
import { signIn } from "@/lib/auth";

/** Only paths on this server: `?next=https://elsewhere` must not turn sign-in into a redirect to another site. */
function nextPath(): string {
  const next = new URLSearchParams(window.location.search).get("next") ?? "/";
  return next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

/** The team deployment's sign-in: a user name and secret from whoever runs this textide server. */
export default function SignInPage(): ReactNode {
  const [name, setName] = useState("");
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(name.trim(), secret);
      window.location.assign(nextPath());
    } catch (err) {
      setError(err instanceof Error ? err.message : "Signing in failed. Try again.");
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form className="sign-in-card" onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to textide</h1>
        <p className="sign-in-hint">
          This workspace is shared by a team. Sign in with the user name and secret you were given; your conversations
          with the assistant are yours alone.
        </p>
        <label>
          User name
          <input
            name="name"
            autoComplete="username"
            autoFocus
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label>
          Secret
          <input
            name="secret"
            type="password"
            autoComplete="current-password"
            required
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
        </label>
        {error && (
          <p className="sign-in-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || name.trim() === "" || secret === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
