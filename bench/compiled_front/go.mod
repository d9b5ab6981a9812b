module detour/bench/compiled_front

go 1.19
