"""Variants: their versions, the current version for new tables, the shipped defaults,
import and export (the rules editor works on top)."""
