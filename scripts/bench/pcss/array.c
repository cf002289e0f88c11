/* PCSS loop benchmark (scripts/bench-pcss.sh): a loop over a global array, each element
   read and written by index. */
int a[1000];
int main() {
    int i, j, s;
    s = 0;
    for (i = 0; i < 1000; i++)
        a[i] = i % 10;
    for (j = 0; j < 3000; j++)
        for (i = 1; i < 1000; i++)
            a[i] = (a[i - 1] + a[i]) % 10;
    for (i = 0; i < 1000; i++)
        s = s + a[i];
    cout << s << endl;
}
