/* A variable-length array whose inner dimension varies is refused once, by name of the
   construct (only the first dimension may vary); later uses are not reported again. */
int main(void) {
    int n = 4;
    double v[3][n];
    v[0][0] = 1.0;
    return (int)v[0][0];
}
