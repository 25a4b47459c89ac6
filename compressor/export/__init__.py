"""Compaction events out of compaction-lab, in formats other tools read (OpenTelemetry GenAI spans)."""

from .otel import ExportedCompaction, compactions_of, otel_document

__all__ = ["ExportedCompaction", "compactions_of", "otel_document"]
