// Redis and nginx for the team suite, from Debian's binaries in temp dirs on free ports (as the web app's
// test helpers start them: apps/web/test/helpers/{redis,nginx}.ts), and the shipped nginx template.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import os from "node:os";
import path from "node:path";

export const REDIS_SERVER = "/usr/bin/redis-server";
export const NGINX = "/usr/sbin/nginx";

/** Why the team suite cannot run here, or undefined. */
export function missingService() {
  for (const bin of [REDIS_SERVER, NGINX]) if (!existsSync(bin)) return `${bin} is absent (.ci/run installs it)`;
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child, what) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function stopper(child) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
}

export async function startRedis() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "textide-bench-redis-"));
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  await waitForPort(port, child, "redis-server");
  const stop = stopper(child);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => (await stop(), await rm(dir, { recursive: true, force: true })),
  };
}

/**
 * nginx in front of `instances` ({ id, web: "host:port", mcp: "host:port" }), configured from
 * apps/web/deploy/nginx.conf.template as docs/DEPLOY.md describes.
 */
export async function startNginx(repoRoot, instances) {
  const template = await readFile(path.join(repoRoot, "apps/web/deploy/nginx.conf.template"), "utf8");
  const dir = await mkdtemp(path.join(os.tmpdir(), "textide-bench-nginx-"));
  const port = await freePort();
  for (const sub of ["logs", "client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) await mkdir(path.join(dir, sub));
  const parts = {
    LISTEN: `127.0.0.1:${port}`,
    WEB_SERVERS: instances.map((i) => `  server ${i.web} max_fails=1 fail_timeout=5s;`).join("\n"),
    MCP_SERVERS: instances.map((i) => `  server ${i.mcp};`).join("\n"),
    MCP_INSTANCE_UPSTREAMS: instances.map((i, n) => `upstream textide_mcp_${n} { server ${i.mcp}; }`).join("\n"),
    MCP_SESSION_ROUTES: instances.map((i, n) => `  "~^${i.id}~" textide_mcp_${n};`).join("\n"),
  };
  const body = template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name) => parts[name]);
  const user = process.getuid?.() === 0 ? `user ${os.userInfo().username};\n` : "";
  await writeFile(
    path.join(dir, "nginx.conf"),
    `${user}daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/logs/error.log warn;\n` +
      `events { worker_connections 4096; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/client_body;\n` +
      `  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n` +
      `  scgi_temp_path ${dir}/scgi;\n${body}\n}\n`,
  );
  const child = spawn(NGINX, ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "logs/error.log")], {
    stdio: "ignore",
  });
  await waitForPort(port, child, "nginx");
  const stop = stopper(child);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => (await stop(), await rm(dir, { recursive: true, force: true })),
  };
}
