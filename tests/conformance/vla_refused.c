/* A variable-length array is refused once, by name of the construct; later uses of the
   variable are not reported again. */
int main(void) {
    int n = 4;
    double v[n];
    v[0] = 1.0;
    return (int)v[0];
}
