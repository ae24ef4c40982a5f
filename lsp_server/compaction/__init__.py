"""Compaction: what Pi keeps, what it summarizes, and how the summarizer sees the conversation."""
