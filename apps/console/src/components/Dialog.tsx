import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal on the native <dialog>: focus moves into it (to the element marked `data-autofocus`, if any)
 * and stays there, Escape closes it, and focus goes back to what opened it when it closes.
 */
export function Dialog({
  title,
  open,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      d.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {open ? children : null}
    </dialog>
  );
}

/** A yes/no question before something that cannot be undone. */
export function Confirm({
  title,
  open,
  onCancel,
  onConfirm,
  confirmLabel,
  busy,
  children,
}: {
  title: string;
  open: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  confirmLabel: string;
  busy?: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog title={title} open={open} onClose={onCancel}>
      <div className="stack">
        {children}
        <div className="actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
