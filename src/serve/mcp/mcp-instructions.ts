/**
 * The server's `instructions`: what a client puts in its model's system prompt about this server.
 * Short, because it is paid for on every turn; the tool descriptions carry the details.
 */
export const MCP_INSTRUCTIONS = `memvault is your long-term memory: a folder of Markdown notes (persona, the user's profile, daily episodes, insights), versioned with git.

When to use it:
- At the start of a conversation or a new topic, call memory_compile with the user's message: it returns the context (persona, profile, relevant memories, recent entries) within a token budget.
- Before answering a question about the past ("what did I say about…", "last weekend"), call memory_recall; cite what you use with the [[link]] it gives.
- When the user tells you something worth keeping (a fact, a preference, a plan, an event), call memory_remember with one self-contained sentence; add importance (0..1), tags, or at (when it happened) when you know them.
- For lasting knowledge, keep a note: memory_create_note (with a body), memory_edit_note to append, prepend, replace a section or insert under a heading, memory_set_frontmatter for its properties; memory_read_note reads any note as Markdown and gives the hash to pass so a hand edit is never overwritten.
- When a note is wrong or outdated, retire it with memory_forget and a reason (it is archived, never deleted); memory_move renames and keeps links working.
- memory_recent shows what changed lately; memory_backlinks shows what refers to a note.
Every write is committed to git, so the user can see and undo it. Paths are vault paths such as profile/user.md; nothing outside the vault can be read or written.`;
