package eval

import (
	_ "embed"
	"fmt"
	"html/template"
	"os"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms":      ms,
	"percent": func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	"failed":  func(r *Result, e ExpectResult) bool { return e.Rate < r.MinPassRate },
}).Parse(reportHTML))

// WriteHTML writes the self-contained HTML report to file: each
// conversation, each new reply beside its baseline, failures marked.
func (rep *Report) WriteHTML(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	if err := reportTmpl.Execute(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("write html: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}
