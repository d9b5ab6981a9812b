"""A throwaway service pack: the least a replicated service is (hosts, one table, one route),
registered by the test that uses it and by nothing in detour's tree."""
