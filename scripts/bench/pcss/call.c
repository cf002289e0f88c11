/* PCSS loop benchmark (scripts/bench-pcss.sh): a loop whose body calls a function of
   two arguments. */
int step(int x, int y) {
    return (x + y) % 7;
}
int main() {
    int i, j, s;
    s = 0;
    for (j = 0; j < 100; j++)
        for (i = 0; i < 30000; i++)
            s = step(s, i);
    cout << s << endl;
}
