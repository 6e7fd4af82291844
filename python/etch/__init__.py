"""etch Python helpers: corpus generators and reference outputs for tests."""
