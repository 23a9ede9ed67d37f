//! The Requirements panel's phase line: each phase `requirements.progress` announces, in words, with the packages being installed.

import { describe, expect, it } from "vitest";
import { phaseText } from "../src/work/phases";

describe("requirements phases", () => {
  it("names each phase, and the packages while installing", () => {
    expect(phaseText("checking", [])).toBe("Checking what is installed");
    expect(phaseText("installing", ["jsonlite", "ggplot2"])).toBe("Installing jsonlite, ggplot2 into the project's library");
    expect(phaseText("installing", null)).toBe("Installing into the project's library");
    expect(phaseText("rechecking", ["jsonlite"])).toBe("Checking again after the install");
    expect(phaseText("finished", [])).toBe("Finishing");
  });

  it("shows a phase it does not know by its name, never hides it", () => {
    expect(phaseText("downloading", [])).toBe("Preparing (downloading)");
  });
});
