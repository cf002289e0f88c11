/* An enumerator defined in an if's condition is not visible after the if. */
int main(void) {
    if (sizeof(enum { LEAK = 3 }) > 0) {
    }
    return LEAK;
}
