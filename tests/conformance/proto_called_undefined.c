/* A prototype of a function that is called but defined nowhere is refused. */
int missing(int);
int main(void) {
    return missing(1);
}
