/**
 * The verbs' input schemas in one module, for the command line, which loads it (and zod) only when
 * it checks a command's flags itself: `mem --help` and a read the daemon answers never do.
 */
export { checkInput } from './check-input.js';
export { compileInput } from './compile.js';
export { configSetInput } from './config-set.js';
export { importInput } from './import.js';
export { createNoteInput, editNoteInput, forgetInput, moveInput, setFrontmatterInput } from './note-edits.js';
export { recallInput } from './recall.js';
export { rememberInput } from './remember.js';
