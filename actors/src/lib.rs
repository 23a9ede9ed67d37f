//! rho-actors: project actors that own a writer lease and a journal, and rebuild entity state by replay.
