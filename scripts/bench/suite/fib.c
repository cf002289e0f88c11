/* Recursive Fibonacci (scripts/bench-suite.sh): calls and returns. */
int fib(int n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}
void main() {
    printf("fib(30) = %d\n", fib(30));
}
