"""Test helpers shared across test modules (real local servers and fakes, never patches)."""
