"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { getSocket } from "@/lib/socket-client";
import type { ServerToClientEvents } from "@/lib/types";

/** Subscribes to a server → client event for the component's lifetime; the latest handler is always called. */
export function useSocketEvent<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]): void {
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => {
    const socket = getSocket();
    const listener = ((...args: Parameters<ServerToClientEvents[E]>) => {
      (ref.current as (...a: Parameters<ServerToClientEvents[E]>) => void)(...args);
    }) as ServerToClientEvents[E];
    // socket.io's typed `on` does not narrow generic event names.
    (socket.on as (e: E, l: ServerToClientEvents[E]) => void)(event, listener);
    return () => {
      (socket.off as (e: E, l: ServerToClientEvents[E]) => void)(event, listener);
    };
  }, [event]);
}

/** True while the socket is connected. */
export function useSocketConnected(): boolean {
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const socket = getSocket();
    const on = (): void => setConnected(true);
    const off = (): void => setConnected(false);
    socket.on("connect", on);
    socket.on("disconnect", off);
    if (socket.connected) on();
    return () => {
      socket.off("connect", on);
      socket.off("disconnect", off);
    };
  }, []);
  return connected;
}

/**
 * Like `useSocketEvent`, but hands over the events of one animation frame at once, so a burst (a checkout,
 * an agent writing many files) costs one render per frame instead of one per event.
 */
export function useBatchedSocketEvent<E extends keyof ServerToClientEvents>(
  event: E,
  handler: (batch: Parameters<ServerToClientEvents[E]>[0][]) => void,
): void {
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  const pending = useRef<Parameters<ServerToClientEvents[E]>[0][]>([]);
  const flush = useCallback(() => {
    const batch = pending.current;
    pending.current = [];
    ref.current(batch);
  }, []);
  useSocketEvent(event, (payload: Parameters<ServerToClientEvents[E]>[0]) => {
    if (pending.current.push(payload) > 1) return;
    // A hidden tab gets no animation frames: apply its events on a timer instead.
    if (document.hidden) setTimeout(flush, 50);
    else requestAnimationFrame(flush);
  });
}
