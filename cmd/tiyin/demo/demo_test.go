package demo

import "testing"

// TestRunExitsAsTiyinsOtherCommandsDo: a command line the demo does not understand exits 2, a
// walk that cannot start exits 1, and help exits 0, as under package server's command line.
func TestRunExitsAsTiyinsOtherCommandsDo(t *testing.T) {
	t.Setenv("TIYIN_KEY", "")
	t.Setenv("TIYIN_SANDBOX_API_KEY", "")
	for _, tt := range []struct {
		name string
		args []string
		want int
	}{
		{"help", []string{"--help"}, 0},
		{"an argument", []string{"walk"}, 2},
		{"an unknown flag", []string{"--fast"}, 2},
		{"no key", []string{"--url", "http://127.0.0.1:1"}, 1},
		{"no server", []string{"--url", "http://127.0.0.1:1", "--key", "k", "--wait", "1s"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Run(tt.args); got != tt.want {
				t.Errorf("tiyin demo %v exits %d, want %d", tt.args, got, tt.want)
			}
		})
	}
}
