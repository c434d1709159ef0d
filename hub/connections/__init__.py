"""What the front ends share: field rules, limits, line framing, deadlines,
connection states, chat, reserved names, transcripts, web access checks."""
