/** A typed in-process event bus: services publish, transports forward to the renderer. */
import type { AppEvent } from '../../shared/contract/events.js';

export type Listener = (event: AppEvent) => void;

export class EventBus {
  private readonly listeners = new Set<Listener>();
  publish(event: AppEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A broken subscriber (a closed window, a dropped HTTP stream) must not stop the others.
      }
    }
  }
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  get size(): number {
    return this.listeners.size;
  }
}
