/** The few log calls the web server makes; defaults to stderr, tests pass a silent one. */
export interface Logger {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const consoleLogger: Logger = {
  info: (message, data) => console.error(`[web] ${message}`, ...(data ? [data] : [])),
  warn: (message, data) => console.warn(`[web] ${message}`, ...(data ? [data] : [])),
  error: (message, data) => console.error(`[web] ${message}`, ...(data ? [data] : [])),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
