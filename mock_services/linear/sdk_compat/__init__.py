"""What @linear/sdk needs of the schema beyond what the replica models (generated, see generate.py)."""
