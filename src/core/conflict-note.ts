// The name `mem sync` gives the other side's version of a note both sides changed: beside the note,
// `<name>.conflict-<short sha>.md`, linked from it. Status and doctor list them until a person
// merges the two by hand and deletes the conflict note.

/** A conflict note's path: `profile/user.conflict-1a2b3c4.md`. */
export const CONFLICT_NOTE = /\.conflict-[0-9a-f]{7,40}\.md$/;

export const isConflictNote = (path: string): boolean => CONFLICT_NOTE.test(path);
