//! What the phases `requirements.progress` announces mean to the person watching a preparation.

/** What a `requirements.progress` phase means to the person. */
export function phaseText(phase: string, packages: unknown): string {
  const names = Array.isArray(packages) ? packages.map(String).join(", ") : "";
  const texts: Record<string, string> = {
    checking: "Checking what is installed",
    installing: names ? `Installing ${names} into the project's library` : "Installing into the project's library",
    rechecking: "Checking again after the install",
    finished: "Finishing",
  };
  return texts[phase] ?? `Preparing (${phase})`;
}
