/* PCSS loop benchmark (scripts/bench-pcss.sh): a counted loop of integer arithmetic on
   locals. Written in the subset both C* (PCSS) and CPC accept; the script turns the
   C* output statement into printf for cpcc. */
int main() {
    int i, j, s;
    s = 0;
    for (j = 0; j < 300; j++)
        for (i = 0; i < 30000; i++)
            s = (s + i) % 7;
    cout << s << endl;
}
