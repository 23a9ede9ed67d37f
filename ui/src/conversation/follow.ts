//! Keeps a streaming thread in view: while the person is at the bottom of the scrolling panel, new content keeps it there; scrolled up, nothing moves.

import { useEffect, useLayoutEffect, useRef, type RefObject } from "react";

const SLACK = 96;

/** Follows the bottom of the scroll container around `inside` whenever `version` changes, unless scrolled away from it. */
export function useFollowBottom(inside: RefObject<HTMLElement | null>, version: unknown): void {
  const atBottom = useRef(true);
  const box = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const el = inside.current?.closest<HTMLElement>(".dv-panel, .tabpanel") ?? null;
    box.current = el;
    if (!el) return;
    const on = () => {
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < SLACK;
    };
    el.addEventListener("scroll", on, { passive: true });
    return () => el.removeEventListener("scroll", on);
  }, [inside]);
  useLayoutEffect(() => {
    const el = box.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [version]);
}
