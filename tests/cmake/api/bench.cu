// A benchmark for the API cases (never compiled: the fake tuner stands in for the real one).
int main() { return 0; }
