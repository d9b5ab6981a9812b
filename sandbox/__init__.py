"""Sandbox backends behind one interface (base.Sandbox); one module per backend."""
