"""Loading stored LLM outputs (formats.md §3) and human responses (§4)."""
