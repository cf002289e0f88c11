/* cpc-only: a variadic function cannot be forked (its extra arguments are in the parent's frame) */
int sum(int n, ...) { return n; }
int main(void) { fork sum(2, 1, 2); join; return 0; }
