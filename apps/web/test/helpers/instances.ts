/**
 * A team deployment for tests: several production web servers (child processes, so one can be killed) over
 * one workspace and one Redis, behind nginx configured from the shipped apps/web/deploy/nginx.conf.template.
 */
import { readFile } from "node:fs/promises";
import { get } from "node:http";
import path from "node:path";
import { startMcpWebProcess, WEB, type McpWebProcess } from "../browser-harness.js";
import type { Workspace } from "../helpers.js";
import { startNginx, type NginxService } from "./nginx.js";

export const NGINX_TEMPLATE = path.join(WEB, "deploy/nginx.conf.template");

export interface InstanceAddress {
  id: string;
  /** host:port of its web server and of its MCP endpoint. */
  web: string;
  mcp: string;
}

/** The shipped template with its {{…}} parts filled in for `instances`, as docs/DEPLOY.md describes. */
export function fillNginxTemplate(template: string, listen: string, instances: readonly InstanceAddress[]): string {
  const parts: Record<string, string> = {
    LISTEN: listen,
    WEB_SERVERS: instances.map((i) => `  server ${i.web} max_fails=1 fail_timeout=5s;`).join("\n"),
    MCP_SERVERS: instances.map((i) => `  server ${i.mcp};`).join("\n"),
    MCP_INSTANCE_UPSTREAMS: instances.map((i, n) => `upstream textide_mcp_${n} { server ${i.mcp}; }`).join("\n"),
    MCP_SESSION_ROUTES: instances.map((i, n) => `  "~^${i.id}~" textide_mcp_${n};`).join("\n"),
  };
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    const value = parts[name];
    if (value === undefined) throw new Error(`nginx template: unknown part ${whole}`);
    return value;
  });
}

export interface TeamInstance extends McpWebProcess {
  id: string;
  port: number;
}

/** One production server of the team: its own TEXTIDE_INSTANCE_ID, Redis, and a shared MCP token. */
export async function startInstance(ws: Workspace, id: string, env: Record<string, string>): Promise<TeamInstance> {
  const proc = await startMcpWebProcess(ws, { TEXTIDE_INSTANCE_ID: id, ...env });
  return { ...proc, id, port: Number(new URL(proc.base).port) };
}

/** nginx in front of `instances`, configured from the shipped template. */
export async function startProxy(instances: readonly TeamInstance[]): Promise<NginxService> {
  const template = await readFile(NGINX_TEMPLATE, "utf8");
  const addresses = instances.map((i) => ({ id: i.id, web: `127.0.0.1:${i.port}`, mcp: new URL(i.mcpUrl).host }));
  return startNginx((port) => fillNginxTemplate(template, `127.0.0.1:${port}`, addresses));
}

/** GET through nginx from a chosen loopback source address (nginx routes windows by client address). */
export function getJson(url: string, localAddress = "127.0.0.1"): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    get(url, { localAddress }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
    }).on("error", reject);
  });
}

/**
 * A loopback source address (127.0.0.x) that nginx sends to each instance: nginx hashes the client
 * address, so clients from these addresses land where the test wants them.
 */
export async function addressesByInstance(proxyUrl: string, ids: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let n = 1; n < 250 && found.size < ids.length; n++) {
    const address = `127.0.0.${n}`;
    const { body } = await getJson(`${proxyUrl}/api/health`, address);
    const instance = (body as { instance?: string }).instance;
    if (instance && !found.has(instance)) found.set(instance, address);
  }
  const last = await getJson(`${proxyUrl}/api/health`);
  for (const id of ids) {
    if (!found.has(id)) throw new Error(`nginx never sent a client to ${id} (health: ${JSON.stringify(last)})`);
  }
  return found;
}
