import fs from 'node:fs';
import os from 'node:os';

/**
 * Drawing yields the CPU to the event loop: on Linux a thread's nice value is its own (setpriority on
 * the thread's id), so a rendering thread runs at RENDER_NICE while the process's other threads keep
 * theirs. With fewer cores than runnable threads (a small or shared machine), a request waiting for
 * the event loop then takes the core from a document being drawn, not the other way round.
 */
export const RENDER_NICE = 10;

/** Lowers the calling thread's priority to RENDER_NICE (never raises it); elsewhere than Linux, or when not allowed, nothing. */
export function yieldToEventLoop(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').at(-1));
    if (tid > 0) os.setPriority(tid, Math.max(os.getPriority(tid), RENDER_NICE));
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
