(function(){
// The games list of report.html: sorted by a click on a heading, filtered by the text box, shown a page at a time.
var D=JSON.parse(document.getElementById('games-data').textContent),PAGE=100;
var table=document.getElementById('games'),filter=document.getElementById('games-filter');
var pageText=document.getElementById('games-page'),prev=document.getElementById('games-prev');
var next=document.getElementById('games-next'),rows=D.rows,page=0,sortBy=-1,down=false;
var head=document.createElement('tr');
D.columns.forEach(function(name,k){
  var th=document.createElement('th');th.textContent=name;th.setAttribute('data-col',k);th.title='sort by '+name;
  th.addEventListener('click',function(){down=sortBy===k?!down:false;sortBy=k;page=0;update();});head.appendChild(th);});
table.tHead.appendChild(head);
function compare(a,b){
  if(typeof a==='number'&&typeof b==='number'){return a-b;}
  return String(a).localeCompare(String(b),undefined,{numeric:true});}
function update(){
  var words=filter.value.trim().toLowerCase();
  rows=words?D.rows.filter(function(r){return r.join('\u0001').toLowerCase().indexOf(words)>=0;}):D.rows.slice();
  if(sortBy>=0){rows.sort(function(a,b){var c=compare(a[sortBy],b[sortBy]);return down?-c:c;});}
  Array.prototype.forEach.call(head.children,function(th,k){
    th.setAttribute('aria-sort',k===sortBy?(down?'descending':'ascending'):'none');});
  var pages=Math.max(1,Math.ceil(rows.length/PAGE));page=Math.max(0,Math.min(page,pages-1));
  var body=table.tBodies[0];body.textContent='';
  rows.slice(page*PAGE,(page+1)*PAGE).forEach(function(r){
    var tr=document.createElement('tr');
    r.forEach(function(v,k){
      var td=document.createElement('td');if(typeof v==='number'){td.className='num';}
      var link=k===0?D.links[v]:undefined;
      if(link){var a=document.createElement('a');a.href=link;a.textContent=v;td.appendChild(a);}
      else{td.textContent=v;}
      tr.appendChild(td);});
    body.appendChild(tr);});
  pageText.textContent='page '+(page+1)+' of '+pages+' ('+rows.length+' games'+(words?' match':'')+')';
  prev.disabled=page===0;next.disabled=page>=pages-1;
  document.body.setAttribute('data-games-page',page+1);}
prev.onclick=function(){page--;update();};
next.onclick=function(){page++;update();};
filter.addEventListener('input',function(){page=0;update();});
update();
})();
