//! The image a call of Rho's own agent returned, shown on its card: read from the service, which stored it by its digest when the call ended (the model only read its descriptor), shown through a blob URL and let go when the card goes; nothing when none was stored.

import { useEffect, useState } from "react";
import { callConversation } from "./ops";

/** The descriptor the model read for an image result (`[image image/png, 41.2 KB]`), if the output has one. */
export function imageDescriptor(rawOutput: string): string | null {
  return /\[image image\/[^\],]+, [^\]]+\]/.exec(rawOutput)?.[0] ?? null;
}

function blobOf(mimeType: string, data: string): Blob {
  const bin = atob(data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type: mimeType });
}

export function CardImage({ projectId, conversationId, stepId, descriptor }: { projectId: string; conversationId: string; stepId: string; descriptor: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let url: string | null = null;
    callConversation("conversation.image", { projectId, conversationId, stepId })
      .then((r) => {
        if (!live || !r.mimeType.startsWith("image/")) return;
        url = URL.createObjectURL(blobOf(r.mimeType, r.data));
        setSrc(url);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [projectId, conversationId, stepId]);
  if (!src) return null;
  return <img className="cv-card-image" src={src} alt={`The image the tool returned ${descriptor.slice(1, -1).replace(/^image /, "(")})`} data-testid="cv-call-image" />;
}
