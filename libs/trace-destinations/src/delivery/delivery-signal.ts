/** Wakes the delivery loop when the export reactor of this process has queued something (else it polls). */
export class TraceDeliverySignal {
  private listeners = new Set<() => void>();

  notify(): void {
    for (const l of this.listeners) l();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const TRACE_DELIVERY_SIGNAL = Symbol('TRACE_DELIVERY_SIGNAL');
