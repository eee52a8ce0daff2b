import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";
import { waitForPort } from "./redis.js";

const NGINX = "/usr/sbin/nginx";

/** Why nginx tests cannot run here, or undefined when they can. */
export const nginxSkipReason: string | undefined = existsSync(NGINX)
  ? undefined
  : `${NGINX} is absent (apt-get install -y nginx)`;

export interface NginxService {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  dir: string;
  /** The error log so far (for failure messages). */
  errors(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Debian's nginx in the foreground with everything (pid, logs, temp paths) in a temp dir. `conf` is the
 * body of the `http {}` block; `{{PORT}}` in it becomes the port it listens on.
 */
export async function startNginx(httpBlock: (port: number) => string): Promise<NginxService> {
  const dir = await mkdtemp(path.join(tmpdir(), "textide-nginx-"));
  const port = await freePort();
  for (const sub of ["logs", "client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) await mkdir(path.join(dir, sub));
  // As root nginx's workers would switch to "nobody", who cannot write the temp dir.
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};\n` : "";
  const conf = `${user}daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${httpBlock(port)}
}
`;
  await writeFile(path.join(dir, "nginx.conf"), conf);
  let output = "";
  const child: ChildProcess = spawn(
    NGINX,
    ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "logs/error.log")],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitForPort(port, () => (child.exitCode === null ? undefined : `nginx exited:\n${output}`));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    errors: async () => {
      const { readFile } = await import("node:fs/promises");
      return readFile(path.join(dir, "logs/error.log"), "utf8").catch(() => "");
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGQUIT is nginx's graceful stop; SIGTERM a fast one, which is all a test needs.
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
