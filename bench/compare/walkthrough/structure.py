"""The shape of generated help-center articles, one line each: size, steps, sections, pages
listed under "More documentation", Docusaurus file markers left in code, title and description.

    python3 structure.py OUTROOT...   # each OUTROOT holds <repo>/help-center.mdx
"""
import sys,re,os
for d in sys.argv[1:]:
    for r in sorted(os.listdir(d)):
        p=f"{d}/{r}/help-center.mdx"
        if not os.path.exists(p): print(r,"NO ARTICLE"); continue
        t=open(p).read()
        title=re.search(r'^title: "(.*)"',t,re.M).group(1)
        desc=re.search(r'^description: "(.*)"',t,re.M).group(1)
        steps=len(re.findall(r'^<Step title=',t,re.M))
        h2=len(re.findall(r'^## ',t,re.M))
        lst=t.split("## More documentation")[-1] if "## More documentation" in t else ""
        items=len(re.findall(r'\]\(',lst))
        fm=len(re.findall(r'// file:',t))
        print(f"{r:18} kb={len(t)//1024:3} steps={steps:2} h2={h2:2} listed={items:3} file_markers={fm} title={title!r} desc={desc[:70]!r}")
