"""Golden playthroughs: transcripts of seeded games, reviewed as diffs (see ``regenerate``)."""
